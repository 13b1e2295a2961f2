/* expect: 8:3 do-while loop */
#define N 8
void f(double A[N])
{
  int i;
#pragma scop
  i = 0;
  do {
    A[i] = 0.0;
  } while (i < N);
#pragma endscop
}
