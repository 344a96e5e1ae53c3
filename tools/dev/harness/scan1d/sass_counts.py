# Instruction counts of the scan1d kernels (tools/dev/harness/README.md, "1-D single-pass variants"):
# per Tile1DKernel, the basic blocks holding MUFU.EX2 / MUFU.LG2 (logcumsumexp) or the float<->double
# conversions (cumsum), in instructions per marker. Usage: cuobjdump -sass <binary> > f.sass;
# python3 sass_counts.py f.sass (build with -DSCAN1D_FAST_ONLY -DSCAN1D_FULL_ONLY for the fast path alone).
import re,sys
txt=open(sys.argv[1]).read().split('Function : ')
for blk in txt[1:]:
    name=blk.split('\n',1)[0].strip()
    if 'Tile1D' not in name: continue
    m=re.search(r'(Lse|Cumsum)VELi(\d+)ELi(\d+)ELi(\d+)ELb(\d)ELb(\d)',name)
    op,thr,items,mb,pers,cheap=m.groups(); items=int(items)
    bbs=[[]]
    for line in blk.splitlines():
        if re.match(r'\s*\.L_x_\d+:',line): bbs.append([]); continue
        mm=re.match(r'\s+/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)',line)
        if mm and mm.group(2)!='NOP':
            bbs[-1].append(mm.group(2))
            if mm.group(2).startswith(('BRA','EXIT','RET','CALL','BSYNC','WARPSYNC')): bbs.append([])
    def tally(marker):
        sel=[b for b in bbs if sum(1 for s in b if s.startswith(marker))>0]
        return sum(len(b) for b in sel), sum(sum(1 for s in b if s.startswith(marker)) for b in sel), len(sel)
    tag=f"b{thr}i{items}mb{mb}{'p' if pers=='1' else ''}{'c' if cheap=='1' else ''}"
    if op=='Lse':
        n1,k1,b1=tally('MUFU.EX2'); n2,k2,b2=tally('MUFU.LG2')
        print(f"Lse    {tag:12}: blocks with EX2 {n1} instr / {k1} EX2 ({b1} blocks) = {n1/k1:.1f}; with LG2 {n2} / {k2} = {n2/k2:.1f}")
    else:
        n1,k1,b1=tally('F2F.F64.F32'); n2,k2,b2=tally('F2F.F32.F64')
        print(f"Cumsum {tag:12}: blocks with F2F.F64.F32 {n1} / {k1} ({b1} blocks) = {n1/k1:.1f}; with F2F.F32.F64 {n2} / {k2} ({b2}) = {n2/k2:.1f}")
