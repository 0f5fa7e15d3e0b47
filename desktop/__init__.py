"""TIC Desktop's Qt application: the only package that imports Qt."""
