#!/usr/bin/env python3
"""Re-emits a printer program at another batch size, the way the printer writes its batch
variants, so that `shlo agree` can be run on programs the samples do not contain.

    scripts/rebatch.py build/shlo FILE.mlir NEW_B OUT.mlir

`shlo lift` reads FILE into a render; the render's batch is set to NEW_B (the templates print
B themselves); what module assembly writes by hand is retyped: the batch-led arguments (%x,
%onehot, the drop masks %dp<i> and %do), the verbatim lines' batch-led types (rank 2 or more,
and rank 1 per example outside the zero-bias constants %zb<n>), the batch-size constants of the
loss (%bsc, %lbf, %lbfc, and any dense<B.0> on a retyped line) and, for a forward pass, its result
types. `shlo emit` writes OUT. A verbatim dense<B.0> that none of these rules covers is printed
as a warning: check it by hand. Whether the variant is right is then for `shlo lift` (the same
share of lines in nodes as FILE) and `shlo agree` (den against the text) to say.
"""
import json
import re
import subprocess
import sys


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    shlo, src, out = sys.argv[1], sys.argv[2], sys.argv[4]
    nb = int(sys.argv[3])
    lifted = subprocess.run([shlo, 'lift', src], capture_output=True, text=True)
    if lifted.returncode != 0:
        sys.exit(lifted.stderr)
    doc = json.loads(lifted.stdout)
    r = doc['render']
    b = r['batch']
    led = re.compile(r'tensor<%dx(?=[0-9])' % b)  # batch-led, rank 2 or more
    vec = re.compile(r'tensor<%dxf32>' % b)  # rank 1: per example (the loss), not a zero bias
    changed = []
    for a in r['arguments']:
        name, ty = a
        if name in ('%x', '%onehot', '%do') or name.startswith('%dp'):
            new = vec.sub('tensor<%dxf32>' % nb, led.sub('tensor<%dx' % nb, ty))
            if new != ty:
                a[1] = new
                changed.append(name)
    for item in r['items']:
        if 'line' not in item:
            continue
        line = item['line']
        new = led.sub('tensor<%dx' % nb, line)
        if not line.strip().startswith('%zb'):
            new = vec.sub('tensor<%dxf32>' % nb, new)
        constant = 'dense<%d.0>' % b
        if constant in new and (new != line or re.match(r'\s*%(lbf|lbfc|bsc) =', line)):
            new = new.replace(constant, 'dense<%d.0>' % nb)
        elif constant in new:
            print('warning: a verbatim constant equal to B is left as it is:', new.strip(), file=sys.stderr)
        if new != line:
            item['line'] = new
            changed.append(new.strip().split(' ')[0])
    if '_fwd' in src:  # a forward pass returns the logits, B rows
        r['results'] = [led.sub('tensor<%dx' % nb, t) for t in r['results']]
    r['batch'] = nb
    with open(out + '.json', 'w') as f:
        json.dump(doc, f)
    subprocess.run([shlo, 'emit', out + '.json', '-o', out], check=True)
    print('batch %d -> %d; retyped: %s' % (b, nb, ', '.join(changed)))


if __name__ == '__main__':
    main()
