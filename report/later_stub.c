#include "report.h"
int rp_export_chrome(const rp_profile *p, const rp_opts *o, FILE *f, sp_fmt_err *err){(void)p;(void)o;(void)f;(void)err;return -1;}
int rp_export_folded(const rp_profile *p, const rp_opts *o, FILE *f, sp_fmt_err *err){(void)p;(void)o;(void)f;(void)err;return -1;}
int rp_svg_flame(const rp_profile *p, const rp_opts *o, FILE *f, sp_fmt_err *err){(void)p;(void)o;(void)f;(void)err;return -1;}
int rp_svg_timeline(const rp_profile *p, const rp_opts *o, FILE *f, sp_fmt_err *err){(void)p;(void)o;(void)f;(void)err;return -1;}
int rp_svg_compare(rp_profile *const *ps, int n, const rp_opts *o, FILE *f, sp_fmt_err *err){(void)ps;(void)n;(void)o;(void)f;(void)err;return -1;}
int rp_svg_speedup(rp_profile *const *ps, int n, const rp_opts *o, FILE *f, sp_fmt_err *err){(void)ps;(void)n;(void)o;(void)f;(void)err;return -1;}
