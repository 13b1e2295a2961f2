{ S[i, j] -> PE[((i) mod 16), ((j) mod 16)] }
{ S[i, j] -> T[(floor((i)/16)), (floor((j)/16))] }
