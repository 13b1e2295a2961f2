/* expect: 8:14 address-of */
#define N 8
void f(double A[N], double x)
{
  int i;
#pragma scop
  for (i = 0; i < N; i++)
    A[i] = g(&x);
#pragma endscop
}
