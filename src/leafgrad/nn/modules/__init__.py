"""The layers of ``leafgrad.nn``, one topic per file (as torch.nn.modules)."""

from .module import Module
from .container import (Container, ModuleDict, ModuleList, ParameterDict, ParameterList,
                        Sequential)
from .linear import Bilinear, Identity, Linear
from .flatten import Flatten, Unflatten
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d,
                      AvgPool1d, AvgPool2d, LPPool1d, LPPool2d, MaxPool1d, MaxPool2d,
                      MaxUnpool1d, MaxUnpool2d)
from .pooling3d import (AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, FractionalMaxPool2d,
                        FractionalMaxPool3d, LPPool3d, MaxPool3d, MaxUnpool3d)
from .dropout import AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout
from .padding import *  # noqa: F403
from .padding import __all__ as _padding_all
from .normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, CrossMapLRN2d, GroupNorm,
                            InstanceNorm1d,
                            InstanceNorm2d, InstanceNorm3d, LayerNorm, LocalResponseNorm,
                            RMSNorm, SyncBatchNorm)
from .distance import CosineSimilarity
from .pixelshuffle import PixelShuffle, PixelUnshuffle
from .fold import Fold, Unfold
from .channelshuffle import ChannelShuffle
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d
from .sparse import Embedding, EmbeddingBag
from .rnn import GRU, GRUCell, LSTM, LSTMCell, RNN, RNNBase, RNNCell, RNNCellBase
from .transformer import MultiheadAttention, TransformerEncoder, TransformerEncoderLayer
from .transformer_decoder import Transformer, TransformerDecoder, TransformerDecoderLayer
from .adaptive import AdaptiveLogSoftmaxWithLoss
from .lazy import *  # noqa: F403
from . import utils  # noqa: E402 - torch.nn.modules.utils
from .lazy import __all__ as _lazy_all
from .activation import *  # noqa: F403
from .activation import __all__ as _activation_all
from .loss import *  # noqa: F403
from .loss import __all__ as _loss_all
from .linear_cross_entropy import LinearCrossEntropyLoss, LinearCrossEntropyOptions

__all__ = [
    "LinearCrossEntropyLoss", "LinearCrossEntropyOptions",
    "Module", "Container", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
    "Identity", "Linear", "Bilinear", "Flatten", "Unflatten",
    "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
    "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
    "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "LPPool1d", "LPPool2d", "MaxUnpool1d",
    "MaxUnpool2d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "LPPool3d",
    "MaxUnpool3d", "FractionalMaxPool2d", "FractionalMaxPool3d",
    "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
    *_padding_all,
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "InstanceNorm1d", "InstanceNorm2d",
    "InstanceNorm3d", "LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm", "CrossMapLRN2d",
    "Embedding", "EmbeddingBag",
    "CosineSimilarity", "PixelShuffle", "PixelUnshuffle", "Fold", "Unfold",
    "ChannelShuffle", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d",
    "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell",
    "MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder",
    "TransformerDecoderLayer", "TransformerDecoder", "Transformer", "AdaptiveLogSoftmaxWithLoss",
    *_activation_all, *_loss_all, *[name for name in _lazy_all if name != "LazyModuleMixin"],
]
