# atax: y := A^T * (A * x), A is M x N (Python twin of atax.c).

M = 5
N = 7


def kernel_atax(M, N, A, x, y, tmp):
    for i in range(N):
        y[i] = 0.0
    for i in range(M):
        tmp[i] = 0.0
        for j in range(N):
            tmp[i] = tmp[i] + A[i][j] * x[j]
        for j in range(N):
            y[j] = y[j] + A[i][j] * tmp[i]
