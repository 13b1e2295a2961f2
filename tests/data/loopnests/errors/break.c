/* expect: 10:7 break inside the region */
#define N 8
void f(double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < N; i++) {
    A[i] = 0.0;
    if (i > 4)
      break;
  }
#pragma endscop
}
