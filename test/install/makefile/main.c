/* main.c - a Makefile project built with CC=sp-cc. */
#include <stdio.h>
int twice(int);
static int __attribute__((noinline)) add(int a, int b) { return a + b; }
int main(void) { int s = 0; for (int i = 0; i < 4; i++) s = add(s, twice(i)); printf("%d\n", s); return 0; }
