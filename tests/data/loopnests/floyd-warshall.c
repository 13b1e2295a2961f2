/* floyd-warshall: all-pairs shortest paths, relaxing through every k. The ternary's condition
   reads array values, so the statement reads all three path elements. */
#define N 6

void kernel_floyd_warshall(int n, DATA_TYPE POLYBENCH_2D(path, N, N, n, n))
{
  int i, j, k;

#pragma scop
  for (k = 0; k < _PB_N; k++) {
    for (i = 0; i < _PB_N; i++)
      for (j = 0; j < _PB_N; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j] ?
                     path[i][j] : path[i][k] + path[k][j];
  }
#pragma endscop
}
