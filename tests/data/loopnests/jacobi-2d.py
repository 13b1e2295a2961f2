# jacobi-2d: 5-point Jacobi stencil, TSTEPS time steps ping-ponging A and B
# (Python twin of jacobi-2d.c).

TSTEPS = 2
N = 7


def kernel_jacobi_2d(TSTEPS, N, A, B):
    for t in range(TSTEPS):
        for i in range(1, N - 1):
            for j in range(1, N - 1):
                B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] + A[i - 1][j])
        for i in range(1, N - 1):
            for j in range(1, N - 1):
                A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][1 + j] + B[1 + i][j] + B[i - 1][j])
