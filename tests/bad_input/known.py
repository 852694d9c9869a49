"""Bad-input cases whose outcome still differs from torch 2.13: case -> (leafgrad's outcome,
torch's outcome), and why (REASONS). Written by ``python -m tests.bad_input.regen`` from a run of
the cases; the same list is in docs/known-differences.md."""

# fmt: off
KNOWN = {"lib.autograd.grad(h.sum(), w, allow_unused='x')": ('value ["tuple", ["tensor", "float32", [3], '
                                                     '[2.0, 2.0, 2.0], false, null]]',
                                                     "TypeError: 'str' object cannot be "
                                                     'interpreted as an integer'),
 'lib.randn(10**7, 10**7)': ('RuntimeError: [enforce fail at alloc_cpu.cpp:127] err == 0. '
                             "DefaultCPUAllocator: can't allocate memory: you tr",
                             'RuntimeError: [enforce fail at alloc_cpu.cpp:127] err == 0. '
                             "DefaultCPUAllocator: can't allocate memory: you tr"),
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

REASONS = {"lib.autograd.grad(h.sum(), w, allow_unused='x')": 'autograd.grad takes any truthy allow_unused; '
                                                    'torch converts it to a C++ bool',
 'lib.randn(10**7, 10**7)': 'same error; the byte count later in the line differs (torch counts '
                            "float32 bytes of the request, leafgrad reports NumPy's)",
 'lib.pow(a)': "Python's own arity TypeError (first line differs); torch's parser reports arity as "
               'an invalid combination',
 'lib.pow(a, exponent=None)': "keyword spelling in the message: torch.pow's body (not a wrapper) "
                              'raises it, without seeing the call as given',
 'lib.pow(a, 2, 3)': "Python's own arity TypeError, as for pow(a)",
 'lib.eq(a, 1, 2)': "Python's own arity TypeError, as for pow(a)",
 "lib.eq(a, other='x')": "keyword spelling in the message, as for clamp(min='x')",
 'lib.mul(a)': "Python's own arity TypeError: 'missing 1 required positional argument' vs torch's "
               '\'arguments: "other"\'',
 'lib.add(a, other=None)': "keyword spelling in the message: leafgrad adds '(position 2)'",
 'lib.zeros(2, 3).index_copy(1, lib.tensor([2, 0]), lib.ones(3, 2))': 'same error type and start; '
                                                                      "torch's slice-shape text "
                                                                      'names dimensions in an '
                                                                      'order leafgrad does not '
                                                                      'reproduce'}
