"""Build hook: setuptools needs setup.py to run cffi's builder (cffi_modules)."""

from setuptools import setup

setup(cffi_modules=["native/build_ffi.py:ffibuilder"])
