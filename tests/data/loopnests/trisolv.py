# trisolv: forward substitution L x = b, L lower triangular (Python twin of trisolv.c).

N = 7


def kernel_trisolv(N, L, x, b):
    for i in range(N):
        x[i] = b[i]
        for j in range(i):
            x[i] -= L[i][j] * x[j]
        x[i] = x[i] / L[i][i]
