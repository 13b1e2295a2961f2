/* conv2d-strided: 2-d convolution with stride 2 in both spatial dimensions and dilation 2 in
   the vertical one. Stride and dilation are literal coefficients in the subscripts (a #define
   would make them parameters): O[k][p][q] += W[k][c][r][s] * I[c][2p + 2r][2q + s].
   The input extent is exactly what the subscripts reach. */
#define K 3
#define C 2
#define P 3
#define Q 4
#define R 2
#define S 3

void kernel_conv2d_strided(double O[K][P][Q], double W[K][C][R][S],
                           double I[C][2 * P + 2 * R - 3][2 * Q + S - 2])
{
  int k, p, q, c, r, s;

#pragma scop
  for (k = 0; k < K; k++)
    for (p = 0; p < P; p++)
      for (q = 0; q < Q; q++) {
        O[k][p][q] = 0.0;
        for (c = 0; c < C; c++)
          for (r = 0; r < R; r++)
            for (s = 0; s < S; s++)
              O[k][p][q] += W[k][c][r][s] * I[c][2 * p + 2 * r][2 * q + s];
      }
#pragma endscop
}
