# tiled-gemm: C += A*B with the i and j loops tiled by 4 (literal tile size), partial tiles
# bounded by min(), and the k loop split at K0 by a guard (Python twin of tiled-gemm.c).

NI = 6
NJ = 7
NK = 5
K0 = 2


def kernel_tiled_gemm(NI, NJ, NK, K0, alpha, C, A, B):
    for ii in range(0, NI, 4):
        for jj in range(0, NJ, 4):
            for i in range(ii, min(ii + 4, NI)):
                for j in range(jj, min(jj + 4, NJ)):
                    for k in range(NK):
                        if k < K0:
                            C[i][j] += A[i][k] * B[k][j]
                        else:
                            C[i][j] += alpha * A[i][k] * B[k][j]
