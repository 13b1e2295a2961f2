2 1
{ S[i, j, k] : 0 <= i <= 255 and 0 <= j <= 255 and 0 <= k <= 255 }
{ S[i, j, k] -> A[i, k] }
{ S[i, j, k] -> B[k, j] }
{ S[i, j, k] -> C[i, j] }
