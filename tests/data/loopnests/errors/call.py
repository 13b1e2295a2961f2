# expect: 7:16 call to update, not a known pure function
N = 8


def f(A):
    for i in range(N):
        A[i] = update(A[i])
