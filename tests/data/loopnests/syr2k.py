# syr2k: lower triangle of C := alpha*A*B^T + alpha*B*A^T + beta*C (Python twin of syr2k.c).

M = 5
N = 6


def kernel_syr2k(M, N, alpha, beta, C, A, B):
    for i in range(N):
        for j in range(i + 1):
            C[i][j] *= beta
        for k in range(M):
            for j in range(i + 1):
                C[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k]
