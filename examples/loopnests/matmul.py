"""One einsum-like statement in Python: C[i, j] += A[i, k] * B[k, j]."""

M = 64
N = 64
K = 64


def matmul(A, B, C):
    for i in range(M):
        for j in range(N):
            for k in range(K):
                C[i, j] += A[i, k] * B[k, j]
