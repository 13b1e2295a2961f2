{ S[i, j] -> PE[((i) mod 256)] }
{ S[i, j] -> T[(floor((i)/256)), (j)] }
