"""dipc-plus: decide accuracy and privacy of DiPWhile+ programs exactly, for all epsilon."""

__version__ = "0.1.0"
