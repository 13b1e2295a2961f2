"""One einsum-like statement: C[i, j] += A[i, k] * B[k, j]."""

M = 8
N = 8
K = 8


def matmul(A, B, C):
    for i in range(M):
        for j in range(N):
            for k in range(K):
                C[i, j] += A[i, k] * B[k, j]
