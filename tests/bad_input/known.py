"""Bad-input cases whose outcome still differs from torch 2.13: case -> (leafgrad's outcome,
torch's outcome), and why (REASONS). Written by ``python -m tests.bad_input.regen`` from a run of
the cases; the same list is in docs/known-differences.md."""

# fmt: off
KNOWN = {'a + 2j': ('TypeError: complex numbers are not supported by leafgrad',
            'value ["tensor", "complex64", [3], ["(1+2j)", "(2+2j)", "(3+2j)"], false, null]'),
 "lib.from_numpy(np.array(['a']))": ("TypeError: can't convert np.ndarray of type numpy.str32. The "
                                     'only supported types are: float64, float32, float',
                                     "TypeError: can't convert np.ndarray of type numpy.str_. The "
                                     'only supported types are: float64, float32, float1'),
 'a << 1': ("TypeError: unsupported operand type(s) for <<: 'Tensor' and 'int'",
            'NotImplementedError: "lshift_cpu" not implemented for \'Float\''),
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
 "lib.autograd.grad(h.sum(), w, allow_unused='x')": ('value ["tuple", ["tensor", "float32", [3], '
                                                     '[2.0, 2.0, 2.0], false, null]]',
                                                     "TypeError: 'str' object cannot be "
                                                     'interpreted as an integer'),
 'w.resize_(6)': ("AttributeError: 'Tensor' object has no attribute 'resize_'",
                  'RuntimeError: cannot resize variables that require grad'),
 'lib.randn(10**7, 10**7)': ('RuntimeError: [enforce fail at alloc_cpu.cpp:127] err == 0. '
                             "DefaultCPUAllocator: can't allocate memory: you tr",
                             'RuntimeError: [enforce fail at alloc_cpu.cpp:127] err == 0. '
                             "DefaultCPUAllocator: can't allocate memory: you tr"),
 "lib.clamp(a, min='x')": ('TypeError: clamp() received an invalid combination of arguments - got '
                           '(Tensor, str), but expected one of:',
                           'TypeError: clamp() received an invalid combination of arguments - got '
                           '(Tensor, min=str), but expected one of:'),
 'lib.pow(a)': ("TypeError: pow() missing 1 required positional argument: 'exponent'",
                'TypeError: pow() received an invalid combination of arguments - got (Tensor), but '
                'expected one of:'),
 'lib.pow(a, exponent=None)': ('TypeError: pow() received an invalid combination of arguments - '
                               'got (Tensor, NoneType), but expected one of:',
                               'TypeError: pow() received an invalid combination of arguments - '
                               'got (Tensor, exponent=NoneType), but expected '),
 'lib.pow(a, 2, 3)': ('TypeError: pow() takes 2 positional arguments but 3 were given',
                      'TypeError: pow() received an invalid combination of arguments - got '
                      '(Tensor, int, int), but expected one of:'),
 'lib.eq(a, 1, 2)': ('TypeError: eq() takes 2 positional arguments but 3 were given',
                     'TypeError: eq() received an invalid combination of arguments - got (Tensor, '
                     'int, int), but expected one of:'),
 "lib.eq(a, other='x')": ('TypeError: eq() received an invalid combination of arguments - got '
                          '(Tensor, str), but expected one of:',
                          'TypeError: eq() received an invalid combination of arguments - got '
                          '(Tensor, other=str), but expected one of:'),
 'lib.mul(a)': ("TypeError: mul() missing 1 required positional argument: 'other'",
                'TypeError: mul() missing 1 required positional arguments: "other"'),
 'lib.add(a, other=None)': ("TypeError: add(): argument 'other' (position 2) must be Tensor, not "
                            'NoneType',
                            "TypeError: add(): argument 'other' must be Tensor, not NoneType"),
 'lib.zeros(2, 3).index_copy(1, lib.tensor([2, 0]), lib.ones(3, 2))': ('RuntimeError: '
                                                                       'index_copy_(): '
                                                                       'Source/destination tensor '
                                                                       'must have same slice '
                                                                       'shapes. Destination slice '
                                                                       'shape: 2',
                                                                       'RuntimeError: '
                                                                       'index_copy_(): '
                                                                       'Source/destination tensor '
                                                                       'must have same slice '
                                                                       'shapes. Destination slice '
                                                                       'shape: 2')}

REASONS = {'a + 2j': 'open',
 "lib.from_numpy(np.array(['a']))": 'open',
 'a << 1': 'open',
 'lib.nn.functional.cross_entropy(a, i)': 'open',
 'lib.histc(i, 3)': 'open',
 'lib.bincount(a)': 'open',
 'lib.bincount(lib.tensor([-1]))': 'open',
 "lib.zeros(3).scatter_reduce(0, lib.tensor([0, 0]), lib.tensor([2.0, 3.0]), 'sum')": 'open',
 "lib.zeros(3).scatter_reduce(0, lib.tensor([0, 0]), lib.tensor([2.0, 3.0]), 'bogus')": 'open',
 "lib.autograd.grad(h.sum(), w, allow_unused='x')": 'open',
 'w.resize_(6)': 'open',
 'lib.randn(10**7, 10**7)': 'open',
 "lib.clamp(a, min='x')": 'open',
 'lib.pow(a)': 'open',
 'lib.pow(a, exponent=None)': 'open',
 'lib.pow(a, 2, 3)': 'open',
 'lib.eq(a, 1, 2)': 'open',
 "lib.eq(a, other='x')": 'open',
 'lib.mul(a)': 'open',
 'lib.add(a, other=None)': 'open',
 'lib.zeros(2, 3).index_copy(1, lib.tensor([2, 0]), lib.ones(3, 2))': 'open'}
