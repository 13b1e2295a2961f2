# trmm: B := alpha * A^T * B with A unit lower triangular, A is M x M, B is M x N
# (Python twin of trmm.c).

M = 5
N = 4


def kernel_trmm(M, N, alpha, A, B):
    for i in range(M):
        for j in range(N):
            for k in range(i + 1, M):
                B[i][j] += A[k][i] * B[k][j]
            B[i][j] = alpha * B[i][j]
