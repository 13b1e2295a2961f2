# expect: 7:5 while loop
N = 8


def f(A):
    i = 0
    while i < N:
        A[i] = 0.0
        i += 1
