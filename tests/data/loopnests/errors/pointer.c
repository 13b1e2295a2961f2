/* expect: 8:5 pointer dereference */
#define N 8
void f(double *p)
{
  int i;
#pragma scop
  for (i = 0; i < N; i++)
    *p = 0.0;
#pragma endscop
}
