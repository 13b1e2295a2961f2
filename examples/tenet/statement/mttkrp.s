3 1
{ S[i, j, k, l] : 0 <= i <= 23 and 0 <= j <= 255 and 0 <= k <= 255 and 0 <= l <= 255 }
{ S[i, j, k, l] -> A[i, k, l] }
{ S[i, j, k, l] -> B[k, j] }
{ S[i, j, k, l] -> C[l, j] }
{ S[i, j, k, l] -> Y[i, j] }
