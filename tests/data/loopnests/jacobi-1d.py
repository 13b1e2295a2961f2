# jacobi-1d: 3-point Jacobi stencil, TSTEPS time steps ping-ponging A and B
# (Python twin of jacobi-1d.c).

TSTEPS = 3
N = 10


def kernel_jacobi_1d(TSTEPS, N, A, B):
    for t in range(TSTEPS):
        for i in range(1, N - 1):
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1])
        for i in range(1, N - 1):
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1])
