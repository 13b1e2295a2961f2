# gemm: C := alpha*A*B + beta*C (Python twin of gemm.c).

NI = 6
NJ = 7
NK = 5


def kernel_gemm(NI, NJ, NK, alpha, beta, C, A, B):
    for i in range(NI):
        for j in range(NJ):
            C[i, j] *= beta
        for k in range(NK):
            for j in range(NJ):
                C[i, j] += alpha * A[i, k] * B[k, j]
