1 1
{ S[i, j] : 0 <= i <= 255 and 0 <= j <= 255 }
{ S[i, j] -> A[i, 1 + j]; S[i, j] -> A[1 + i, j]; S[i, j] -> A[i, j]; S[i, j] -> A[-1 + i, j]; S[i, j] -> A[i, -1 + j] }
{ S[i, j] -> B[i, j] }
