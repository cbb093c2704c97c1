/* cyg_dl_prog.c - a -finstrument-functions program that loads, calls and
 * closes two libraries in turn (the second where the first was), then the
 * first again, kept to the end, and the second beside it, closed before the
 * end (argv[1]: the libraries' directory). Prints where each library's work
 * function was, so the test knows the addresses were shared. */
#include <dlfcn.h>
#include <stdio.h>

static int __attribute__((noinline))
use(const char *path, const char *sym, int n, int keep) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "%s\n", dlerror());
    return -1;
  }
  int (*fn)(int) = (int (*)(int))dlsym(h, sym);
  if (!fn)
    return -1;
  printf("%s %p\n", sym, (void *)fn);
  int r = fn(n);
  if (!keep && dlclose(h) != 0)
    return -1;
  return r;
}

int main(int argc, char **argv) {
  char alpha[4096], gamma[4096];
  if (argc < 2)
    return 2;
  snprintf(alpha, sizeof alpha, "%s/librt_cyg_dl_alpha.so", argv[1]);
  snprintf(gamma, sizeof gamma, "%s/librt_cyg_dl_gamma.so", argv[1]);
  if (use(alpha, "alpha_work", 3, 0) < 0 ||
      use(gamma, "gamma_work", 5, 0) < 0 ||
      use(alpha, "alpha_work", 2, 1) < 0 || use(gamma, "gamma_work", 1, 0) < 0)
    return 1;
  return 0;
}
