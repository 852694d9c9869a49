"""Bad-input cases whose outcome still differs from torch 2.13: case -> (leafgrad's outcome,
torch's outcome), and why (REASONS). Written by ``python -m tests.bad_input.regen`` from a run of
the cases; the same list is in docs/known-differences.md."""

# fmt: off
KNOWN = {'a + 2j': ('TypeError: complex numbers are not supported by leafgrad',
            'value ["tensor", "complex64", [3], ["(1+2j)", "(2+2j)", "(3+2j)"], false, null]'),
 'lib.tensor([[1, 2]]).new_zeros(-1)': ('RuntimeError: zeros: Dimension size must be non-negative.',
                                        'RuntimeError: Trying to create tensor with negative '
                                        'dimension -1: [-1]'),
 "lib.from_numpy(np.array(['a']))": ("TypeError: can't convert np.ndarray of type numpy.str32. The "
                                     'only supported types are: float64, float32, float',
                                     "TypeError: can't convert np.ndarray of type numpy.str_. The "
                                     'only supported types are: float64, float32, float1'),
 'lib.broadcast_shapes((2,), (3,))': ('ValueError: shape mismatch: objects cannot be broadcast to '
                                      'a single shape.  Mismatch is between arg 0 with sha',
                                      'RuntimeError: Attempting to broadcast a dimension of length '
                                      '3 at -1! Mismatching argument at index 1 had (3,);'),
 'lib.tile(m, (-1,))': ('ValueError: negative dimensions are not allowed',
                        'RuntimeError: Trying to create tensor with negative dimension -3: [2, '
                        '-3]'),
 "lib.kron(m, 'a')": ("AttributeError: 'str' object has no attribute 'ndim'",
                      "TypeError: kron(): argument 'other' (position 2) must be Tensor, not str"),
 'a << 1': ("TypeError: unsupported operand type(s) for <<: 'Tensor' and 'int'",
            'NotImplementedError: "lshift_cpu" not implemented for \'Float\''),
 'a.bitwise_not()': ('TypeError: ~ (operator.invert) is only implemented on integer and '
                     'Boolean-type tensors',
                     'NotImplementedError: "bitwise_not_cpu" not implemented for \'Float\''),
 'i.softmax(0)': ('value ["tensor", "float32", [3], [0.09, 0.2447, 0.6652], false, null]',
                  'NotImplementedError: "softmax_lastdim_kernel_impl" not implemented for '
                  "'Long'"),
 'lib.nn.functional.cross_entropy(a, i)': ('IndexError: Target 3 is out of bounds.',
                                           'RuntimeError: Expected floating point type for target '
                                           'with class probabilities, got Long'),
 'lib.histc(i, 3)': ("AttributeError: module 'leafgrad' has no attribute 'histc'",
                     'NotImplementedError: "histogram_cpu" not implemented for \'Long\''),
 'lib.bincount(a)': ("AttributeError: module 'leafgrad' has no attribute 'bincount'",
                     'NotImplementedError: "bincount_cpu" not implemented for \'Float\''),
 'lib.bincount(lib.tensor([-1]))': ("AttributeError: module 'leafgrad' has no attribute 'bincount'",
                                    'RuntimeError: bincount only supports 1-d non-negative '
                                    'integral inputs.'),
 'lib.zeros(3).scatter(0, lib.tensor([0, 1]), lib.ones(1))': ('value ["tensor", "float32", [3], '
                                                              '[1.0, 1.0, 0.0], false, null]',
                                                              'RuntimeError: Expected index [2] to '
                                                              'be no larger than self [3] apart '
                                                              'from dimension 0 and to be no '
                                                              'larger size'),
 'lib.zeros(3).index_add_(0, lib.tensor([0]), lib.ones(2))': ('ValueError: array is not '
                                                              'broadcastable to correct shape',
                                                              'RuntimeError: index_add_(): Number '
                                                              'of indices (1) should be equal to '
                                                              'source.size(dim): (2), for dim: 0'),
 'lib.zeros(3).index_fill_(0, lib.tensor([5]), 1.0)': ("AttributeError: 'Tensor' object has no "
                                                       "attribute 'index_fill_'",
                                                       'IndexError: index 5 is out of bounds for '
                                                       'dimension 0 with size 3'),
 'lib.zeros(3).index_fill_(0, lib.tensor([1]), 2.0)': ("AttributeError: 'Tensor' object has no "
                                                       "attribute 'index_fill_'",
                                                       'value ["tensor", "float32", [3], [0.0, '
                                                       '2.0, 0.0], false, null]'),
 'lib.zeros(3).index_copy_(0, lib.tensor([1]), lib.ones(1))': ("AttributeError: 'Tensor' object "
                                                               "has no attribute 'index_copy_'",
                                                               'value ["tensor", "float32", [3], '
                                                               '[0.0, 1.0, 0.0], false, null]'),
 'lib.zeros(3).index_copy_(0, lib.tensor([3]), lib.ones(1))': ("AttributeError: 'Tensor' object "
                                                               "has no attribute 'index_copy_'",
                                                               'IndexError: index_copy_(): index 3 '
                                                               'is out of bounds for dimension 0 '
                                                               'with size 3'),
 'lib.zeros(3).put_(lib.tensor([1]), lib.ones(1))': ("AttributeError: 'Tensor' object has no "
                                                     "attribute 'put_'",
                                                     'value ["tensor", "float32", [3], [0.0, 1.0, '
                                                     '0.0], false, null]'),
 'lib.zeros(3).put_(lib.tensor([3]), lib.ones(1))': ("AttributeError: 'Tensor' object has no "
                                                     "attribute 'put_'",
                                                     'IndexError: out of range: tried to access '
                                                     'index 3 on a tensor of 3 elements.'),
 'm[lib.tensor([True])]': ('IndexError: boolean index did not match indexed array along axis 0; '
                           'size of axis is 2 but size of correspondin',
                           'IndexError: The shape of the mask [1] at index 0 does not match the '
                           'shape of the indexed tensor [2, 3] at inde'),
 'm[..., ..., 0]': ("IndexError: an index can only have a single ellipsis ('...')",
                    'IndexError: index 0 is out of bounds for dimension 2 with size 0'),
 "m['a']": ('IndexError: only integers, slices (`:`), ellipsis (`...`), None and long or byte '
            'Variables are valid indices (',
            "TypeError: new(): invalid data type 'str'"),
 'm[lib.tensor([[True, False, True]])]': ('IndexError: boolean index did not match indexed array '
                                          'along axis 0; size of axis is 2 but size of '
                                          'correspondin',
                                          'IndexError: The shape of the mask [1, 3] at index 0 '
                                          'does not match the shape of the indexed tensor [2, 3] '
                                          'at i'),
 'm[..., None, ...]': ("IndexError: an index can only have a single ellipsis ('...')",
                       'value ["tensor", "float32", [2, 3, 1], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0], '
                       'false, null]'),
 'm.masked_fill(lib.ones(4, dtype=lib.bool), 1.0)': ('ValueError: shape mismatch: objects cannot '
                                                     'be broadcast to a single shape.  Mismatch is '
                                                     'between arg 0 with sha',
                                                     'RuntimeError: The size of tensor a (4) must '
                                                     'match the size of tensor b (3) at '
                                                     'non-singleton dimension 1'),
 'm.masked_select(lib.ones(4, dtype=lib.bool))': ('ValueError: shape mismatch: objects cannot be '
                                                  'broadcast to a single shape.  Mismatch is '
                                                  'between arg 0 with sha',
                                                  'RuntimeError: The size of tensor a (4) must '
                                                  'match the size of tensor b (3) at non-singleton '
                                                  'dimension 1'),
 'lib.zeros(3).index_put_((lib.tensor([3]),), lib.ones(1))': ('IndexError: index 3 is out of '
                                                              'bounds for axis 0 with size 3',
                                                              'IndexError: index 3 is out of '
                                                              'bounds for dimension 0 with size 3'),
 "lib.zeros(3).scatter_reduce(0, lib.tensor([0, 0]), lib.tensor([2.0, 3.0]), 'sum')": ('AttributeError: '
                                                                                       "'Tensor' "
                                                                                       'object has '
                                                                                       'no '
                                                                                       'attribute '
                                                                                       "'scatter_reduce'",
                                                                                       'value '
                                                                                       '["tensor", '
                                                                                       '"float32", '
                                                                                       '[3], [5.0, '
                                                                                       '0.0, 0.0], '
                                                                                       'false, '
                                                                                       'null]'),
 "lib.zeros(3).scatter_reduce(0, lib.tensor([0, 0]), lib.tensor([2.0, 3.0]), 'bogus')": ('AttributeError: '
                                                                                         "'Tensor' "
                                                                                         'object '
                                                                                         'has no '
                                                                                         'attribute '
                                                                                         "'scatter_reduce'",
                                                                                         'RuntimeError: '
                                                                                         'reduce '
                                                                                         'argument '
                                                                                         'must be '
                                                                                         'either '
                                                                                         'sum, '
                                                                                         'prod, '
                                                                                         'mean, '
                                                                                         'amax or '
                                                                                         'amin, '
                                                                                         'got '
                                                                                         'bogus'),
 'z.gather(0, lib.tensor(0))': ('IndexError: list assignment index out of range',
                                'value ["tensor", "float32", [], [2.0], false, null]'),
 'z.index_select(0, lib.tensor([0]))': ('IndexError: too many indices for array: array is '
                                        '0-dimensional, but 1 were indexed',
                                        'value ["tensor", "float32", [], [2.0], false, null]'),
 'z.size(0)': ('IndexError: tuple index out of range',
               'IndexError: Dimension specified as 0 but tensor has no dimensions'),
 'z.size(1)': ('IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)',
               'IndexError: Dimension specified as 1 but tensor has no dimensions'),
 'z.permute()': ('value ["tensor", "float32", [], [2.0], false, null]',
                 'TypeError: permute() missing 1 required positional arguments: "dims"'),
 "lib.autograd.grad(h.sum(), w, allow_unused='x')": ('value ["tuple", ["tensor", "float32", [3], '
                                                     '[2.0, 2.0, 2.0], false, null]]',
                                                     "TypeError: 'str' object cannot be "
                                                     'interpreted as an integer'),
 'w.resize_(6)': ("AttributeError: 'Tensor' object has no attribute 'resize_'",
                  'RuntimeError: cannot resize variables that require grad'),
 'lib.randn(10**7, 10**7)': ('RuntimeError: [enforce fail at alloc_cpu.cpp:127] err == 0. '
                             "DefaultCPUAllocator: can't allocate memory: you tr",
                             'RuntimeError: [enforce fail at alloc_cpu.cpp:127] err == 0. '
                             "DefaultCPUAllocator: can't allocate memory: you tr")}

REASONS = {'a + 2j': 'open',
 'lib.tensor([[1, 2]]).new_zeros(-1)': 'open',
 "lib.from_numpy(np.array(['a']))": 'open',
 'lib.broadcast_shapes((2,), (3,))': 'open',
 'lib.tile(m, (-1,))': 'open',
 "lib.kron(m, 'a')": 'open',
 'a << 1': 'open',
 'a.bitwise_not()': 'open',
 'i.softmax(0)': 'open',
 'lib.nn.functional.cross_entropy(a, i)': 'open',
 'lib.histc(i, 3)': 'open',
 'lib.bincount(a)': 'open',
 'lib.bincount(lib.tensor([-1]))': 'open',
 'lib.zeros(3).scatter(0, lib.tensor([0, 1]), lib.ones(1))': 'open',
 'lib.zeros(3).index_add_(0, lib.tensor([0]), lib.ones(2))': 'open',
 'lib.zeros(3).index_fill_(0, lib.tensor([5]), 1.0)': 'open',
 'lib.zeros(3).index_fill_(0, lib.tensor([1]), 2.0)': 'open',
 'lib.zeros(3).index_copy_(0, lib.tensor([1]), lib.ones(1))': 'open',
 'lib.zeros(3).index_copy_(0, lib.tensor([3]), lib.ones(1))': 'open',
 'lib.zeros(3).put_(lib.tensor([1]), lib.ones(1))': 'open',
 'lib.zeros(3).put_(lib.tensor([3]), lib.ones(1))': 'open',
 'm[lib.tensor([True])]': 'open',
 'm[..., ..., 0]': 'open',
 "m['a']": 'open',
 'm[lib.tensor([[True, False, True]])]': 'open',
 'm[..., None, ...]': 'open',
 'm.masked_fill(lib.ones(4, dtype=lib.bool), 1.0)': 'open',
 'm.masked_select(lib.ones(4, dtype=lib.bool))': 'open',
 'lib.zeros(3).index_put_((lib.tensor([3]),), lib.ones(1))': 'open',
 "lib.zeros(3).scatter_reduce(0, lib.tensor([0, 0]), lib.tensor([2.0, 3.0]), 'sum')": 'open',
 "lib.zeros(3).scatter_reduce(0, lib.tensor([0, 0]), lib.tensor([2.0, 3.0]), 'bogus')": 'open',
 'z.gather(0, lib.tensor(0))': 'open',
 'z.index_select(0, lib.tensor([0]))': 'open',
 'z.size(0)': 'open',
 'z.size(1)': 'open',
 'z.permute()': 'open',
 "lib.autograd.grad(h.sum(), w, allow_unused='x')": 'open',
 'w.resize_(6)': 'open',
 'lib.randn(10**7, 10**7)': 'open'}
