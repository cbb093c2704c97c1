/* util.c - an annotated function with a region name of its own. */
__attribute__((annotate("sp_region:util_twice"))) int twice(int x) { return 2 * x; }
