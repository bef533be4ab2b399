/* unresolved.c - a program calling a function nobody provides (a load error). */
void tpf_no_such_call(void);
void QUNR(void)
{
    tpf_no_such_call();
}
