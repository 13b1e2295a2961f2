# bicg: s := A^T * r and q := A * p in one sweep, A is N x M (Python twin of bicg.c).

M = 6
N = 4


def kernel_bicg(M, N, A, s, q, p, r):
    for i in range(M):
        s[i] = 0
    for i in range(N):
        q[i] = 0.0
        for j in range(M):
            s[j] = s[j] + r[i] * A[i, j]
            q[i] = q[i] + A[i, j] * p[j]
