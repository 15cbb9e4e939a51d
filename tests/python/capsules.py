"""Reading DLPack capsules from Python without consuming them (through ctypes), for tests."""

import ctypes

_api = ctypes.pythonapi
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]

READ_ONLY = 1
IS_COPIED = 2


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersionedHead(ctypes.Structure):
    """The fields of DLManagedTensorVersioned up to and including `flags`."""

    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
    ]


def name(capsule):
    """The capsule's name: 'dltensor', 'dltensor_versioned', 'used_dltensor', …"""
    return _api.PyCapsule_GetName(capsule).decode()


def versioned_head(capsule):
    """(major, minor, flags) of an unconsumed versioned capsule, read in place."""
    assert _api.PyCapsule_IsValid(capsule, b"dltensor_versioned") == 1, name(capsule)
    pointer = _api.PyCapsule_GetPointer(capsule, b"dltensor_versioned")
    head = DLManagedTensorVersionedHead.from_address(pointer)
    return head.version.major, head.version.minor, head.flags
