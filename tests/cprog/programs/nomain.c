/* nomain.c - a program with no entry function of its program's name (a load error). */
int not_the_entry(void);
int not_the_entry(void)
{
    return 0;
}
