# 3mm: G := (A*B)*(C*D) through E = A*B and F = C*D (Python twin of 3mm.c).

NI = 4
NJ = 5
NK = 3
NL = 6
NM = 2


def kernel_3mm(NI, NJ, NK, NL, NM, E, A, B, F, C, D, G):
    for i in range(NI):
        for j in range(NJ):
            E[i][j] = 0.0
            for k in range(NK):
                E[i][j] += A[i][k] * B[k][j]
    for i in range(NJ):
        for j in range(NL):
            F[i][j] = 0.0
            for k in range(NM):
                F[i][j] += C[i][k] * D[k][j]
    for i in range(NI):
        for j in range(NL):
            G[i][j] = 0.0
            for k in range(NJ):
                G[i][j] += E[i][k] * F[k][j]
