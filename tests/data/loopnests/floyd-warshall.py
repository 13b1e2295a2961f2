# floyd-warshall: all-pairs shortest paths, relaxing through every k. The ternary's condition
# reads array values, so the statement reads all three path elements (Python twin of
# floyd-warshall.c).
# ruff: noqa: FURB136 (the ternary form is the one the C twin has)

N = 6


def kernel_floyd_warshall(N, path):
    for k in range(N):
        for i in range(N):
            for j in range(N):
                path[i][j] = (
                    path[i][j] if path[i][j] < path[i][k] + path[k][j] else path[i][k] + path[k][j]
                )
