import math, sys
def cd(a, b): return -(-a // b)
def tail_tiles(tiles, kt, blocks, fixed=25.0, per_slot=3.0):
    r = tiles % blocks
    if r == 0: return 0
    saved = kt * (blocks - r) / blocks
    spent = fixed + per_slot * (blocks / r + 1)
    return r if saved > spent else 0
def suits(m, n, k, sms=132):  # rung 13's auto_suits after run 155; canonical m, n (row-major C), NN/NT/TN
    tiles = cd(m, 128) * cd(n, 256)
    r10 = cd(m, 128) * cd(n, 128)
    if n <= 128 and 2 * r10 >= sms: return False
    return tiles >= sms or tail_tiles(tiles, cd(k, 8), sms) > 0 or 4 * tiles >= 3 * sms
for s in sys.argv[1:]:
    lay, shp = s.split(':')
    m, n, k = map(int, shp.split('x'))
    if lay == 'col': m, n = n, m
    print(s, 'simt-13' if suits(m, n, k) else 'simt-10')
