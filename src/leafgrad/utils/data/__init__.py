"""``leafgrad.utils.data``: datasets, samplers and the DataLoader, with torch's behaviour
(including its shuffling order for the same seed).

>>> ds = leafgrad.utils.data.TensorDataset(leafgrad.arange(6.0), leafgrad.arange(6))
>>> [y.tolist() for _, y in leafgrad.utils.data.DataLoader(ds, batch_size=4)]
[[0, 1, 2, 3], [4, 5]]
"""

from . import _utils
from ._utils.collate import default_collate, default_convert
from .dataloader import DataLoader, get_worker_info
from .distributed import DistributedSampler
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset,
                      Subset, TensorDataset, random_split)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                      SubsetRandomSampler, WeightedRandomSampler)

__all__ = [
    "BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset",
    "DistributedSampler", "IterableDataset",
    "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset",
    "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "default_collate",
    "default_convert", "get_worker_info", "random_split",
]
