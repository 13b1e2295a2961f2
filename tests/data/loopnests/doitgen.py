# doitgen: A[r][q][:] := A[r][q][:] * C4 for every (r, q), through sum (Python twin of doitgen.c).

NR = 3
NQ = 4
NP = 5


def kernel_doitgen(NR, NQ, NP, A, C4, sum):
    for r in range(NR):
        for q in range(NQ):
            for p in range(NP):
                sum[p] = 0.0
                for s in range(NP):
                    sum[p] += A[r][q][s] * C4[s][p]
            for p in range(NP):
                A[r][q][p] = sum[p]
