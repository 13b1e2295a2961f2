# 2mm: D := alpha*A*B*C + beta*D through tmp = alpha*A*B (Python twin of 2mm.c).

NI = 4
NJ = 5
NK = 6
NL = 3


def kernel_2mm(NI, NJ, NK, NL, alpha, beta, tmp, A, B, C, D):
    for i in range(NI):
        for j in range(NJ):
            tmp[i, j] = 0.0
            for k in range(NK):
                tmp[i, j] += alpha * A[i, k] * B[k, j]
    for i in range(NI):
        for j in range(NL):
            D[i, j] *= beta
            for k in range(NJ):
                D[i, j] += tmp[i, k] * C[k, j]
