import random, sys
random.seed(int(sys.argv[1]))
frags = ["{{", "}}", "{{- ", " -}}", "{{-", "-}}", " ", " ", " ", "\n", ".a", ".b.c", ".l", ".n", "$x", "$", " := ", " = ", "|", "(", ")",
 "if ", "else ", "end", "range ", "with ", "define ", "block ", "template ", "break", "continue", "\"s\"", "\"t\\n\"", "`r`", "'c'", "1", "-2",
 "0x1F", "1.5e3", "nil", "true", "str ", "fail ", "typeof ", "id ", "list ", ",", "/*", "*/", "x", "#", "..", "089", "$y", "\"a\"", "or ", "and ", "not ", "{{define \"d\"}}", "{{template \"d\" .}}", "{{block \"d\" .}}", "range $i, $v := ", "(.n).x", "$x.a", ".n.x", "$v", "$i", "{{end}}", "{{else}}", "{{ if ", "{{ range ", "{{ with ", " .l", "(", ")", "{{/* c */}}", "{{- /* c */ -}}", "\"\\q\"", "'ab'", "0b1", "1_0", "0o7", "1e400", "\t", "\r\n", "é", "€"]
out = []
for _ in range(int(sys.argv[2])):
    n = random.randint(1, 14)
    s = "".join(random.choice(frags) for _ in range(n))
    # bias towards well-formed actions
    if random.random() < 0.5:
        s = "{{ " + s + " }}"
    out.append(s)
sys.stdout.write("\0".join(out))
