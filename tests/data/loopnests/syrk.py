# syrk: lower triangle of C := alpha*A*A^T + beta*C, A is N x M (Python twin of syrk.c).

M = 5
N = 6


def kernel_syrk(M, N, alpha, beta, C, A):
    for i in range(N):
        for j in range(i + 1):
            C[i][j] *= beta
        for k in range(M):
            for j in range(i + 1):
                C[i][j] += alpha * A[i][k] * A[j][k]
