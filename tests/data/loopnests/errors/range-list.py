# expect: 6:14 a for loop must run over range
N = 8


def f(A, items):
    for i in items:
        A[i] = 0.0
