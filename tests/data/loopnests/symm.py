# symm: C := alpha*A*B + beta*C with A symmetric (lower triangle stored), A is M x M,
# B and C are M x N (Python twin of symm.c).

M = 5
N = 4


def kernel_symm(M, N, alpha, beta, C, A, B):
    for i in range(M):
        for j in range(N):
            temp2 = 0
            for k in range(i):
                C[k][j] += alpha * B[i][j] * A[i][k]
                temp2 += B[k][j] * A[i][k]
            C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2
