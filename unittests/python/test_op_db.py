"""The generic OpInfo tests (op_test.GenericOpTests: output and gradient against the reference,
large awkward shapes, method vs function, determinism, input unchanged, stop_gradient,
finite differences, errors, CPU vs GPU) for every op of op_db.OP_DB: one class per op,
Test<Op>OpInfo. An op's own test_<op>_op.py holds only what is particular to it.
"""
from op_db import OP_DB
from op_test import GenericOpTests


def _class_name(op_name):
    return 'Test%sOpInfo' % ''.join(part.capitalize() for part in op_name.split('_'))


for _name, _info in OP_DB.items():
    globals()[_class_name(_name)] = type(_class_name(_name), (GenericOpTests,), {'op_info': _info})
