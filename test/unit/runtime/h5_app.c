/* h5_app.c - an application using HDF5 itself (serial or MPI build), run
 * with and without ScopeProf by check_h5_app.py: its file and its HDF5
 * error reports must be the same either way. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef H5_APP_MPI
#include <mpi.h>
#endif

/* Defined when linked with libscopeprof, else NULL. */
extern int sp_finalize(void) __attribute__((weak));

static herr_t app_handler(hid_t stack, void *data) {
  fprintf(stderr, "app handler (%s): %zd error(s)\n", (const char *)data,
          (ssize_t)H5Eget_num(stack));
  return 0;
}

/* Work for -finstrument-functions to record. */
__attribute__((noinline)) static double fill(int *v, int n, int scale) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (v[i] = i * scale);
  return s;
}

static int own_file(const char *path) {
  int v[1000];
  hsize_t n = 1000;
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
#ifdef H5_APP_MPI
  H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
#endif
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_obj_track_times(dcpl, 0); /* so the bytes do not hold the time */
  hid_t sp = H5Screate_simple(1, &n, NULL);
  hid_t d = H5Dcreate2(f, "values", H5T_STD_I32LE, sp, H5P_DEFAULT, dcpl,
                       H5P_DEFAULT);
  int rc = 0;
  for (int k = 1; k <= 3; k++)
    if (fill(v, 1000, k) < 0)
      rc = 1;
  if (H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0)
    rc = 1;
  H5Dclose(d);
  H5Sclose(sp);
  H5Pclose(dcpl);
  H5Pclose(fapl);
  if (H5Fclose(f) < 0)
    rc = 1;
  return rc;
}

/* An error on purpose: the handler in effect prints it. */
static void provoke(const char *dir) {
  char missing[4200];
  snprintf(missing, sizeof missing, "%s/missing.h5", dir);
  hid_t f = H5Fopen(missing, H5F_ACC_RDONLY, H5P_DEFAULT);
  fprintf(stderr, "open of a missing file: %s\n", f < 0 ? "failed" : "opened");
}

static H5E_auto2_t first_func;
static void *first_data;

/* Which handler is in effect: HDF5's initial one, the application's own. */
static void say_handler(void) {
  H5E_auto2_t func;
  void *data;
  H5Eget_auto2(H5E_DEFAULT, &func, &data);
  fprintf(stderr, "handler: %s\n",
          func == app_handler                        ? (const char *)data
          : func == first_func && data == first_data ? "initial"
                                                     : "changed");
}

/* argv[1]: directory for the file; argv[2]: what happens when:
 *   exit   - HDF5 work, then exit (ScopeProf writes at exit)
 *   first  - sp_finalize(), then HDF5 work with the default handler
 *   custom - own handler, sp_finalize(), then HDF5 work */
int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
#ifdef H5_APP_MPI
  MPI_Init(&argc, &argv);
#endif
  char path[4200];
  snprintf(path, sizeof path, "%s/app.h5", argv[1]);
  const char *mode = argv[2];
  H5Eget_auto2(H5E_DEFAULT, &first_func, &first_data);
  if (!strcmp(mode, "custom"))
    H5Eset_auto2(H5E_DEFAULT, app_handler, "mine");
  if (strcmp(mode, "exit") != 0 && sp_finalize && sp_finalize() != 0)
    fprintf(stderr, "sp_finalize failed\n");
  say_handler();
  int rc = own_file(path);
  provoke(argv[1]);
  say_handler();
#ifdef H5_APP_MPI
  MPI_Finalize();
#endif
  return rc ? 1 : 7; /* an exit status of its own */
}
