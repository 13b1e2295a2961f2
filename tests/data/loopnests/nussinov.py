# nussinov: RNA secondary structure by dynamic programming over the upper triangle of table,
# rows from the last to the first. max_score is max(); match(b1, b2) is 1 when the bases
# pair (sum 3) (Python twin of nussinov.c).

N = 8


def kernel_nussinov(N, seq, table):
    for i in range(N - 1, -1, -1):
        for j in range(i + 1, N):
            if j - 1 >= 0:
                table[i][j] = max(table[i][j], table[i][j - 1])
            if i + 1 < N:
                table[i][j] = max(table[i][j], table[i + 1][j])
            if j - 1 >= 0 and i + 1 < N:
                if i < j - 1:
                    table[i][j] = max(
                        table[i][j], table[i + 1][j - 1] + (1 if seq[i] + seq[j] == 3 else 0)
                    )
                else:
                    table[i][j] = max(table[i][j], table[i + 1][j - 1])
            for k in range(i + 1, j):
                table[i][j] = max(table[i][j], table[i][k] + table[k + 1][j])
