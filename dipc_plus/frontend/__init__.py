"""The front end: parse .dip text, check it, desugar and lower it to the core IR."""
