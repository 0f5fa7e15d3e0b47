"""TIC engine: the asyncio core of TIC Desktop. It never imports Qt."""

__version__ = "0.1.0"
