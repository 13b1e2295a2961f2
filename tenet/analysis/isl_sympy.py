"""isl's piecewise quasi-polynomials as sympy expressions, and their exact evaluation.

A count of barvinok (`card()`) over the parameters is a sum of piecewise
quasi-polynomials; each piece is a polynomial in the parameters and in floors of affine
expressions of them, on a domain that is a union of conjunctions of affine constraints.
`count_to_sympy` writes it as a `Piecewise` of sympy polynomials with `floor`; `exact_value`
evaluates such an expression at integer parameters in exact rational arithmetic.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

import islpy as isl
import sympy

# ---------------------------------------------------------------------------------------------
# isl -> sympy


def val_to_sympy(val: isl.Val) -> sympy.Rational:
    """An isl rational value as an exact sympy Rational."""
    return sympy.Rational(str(val))


def floor_of(arg: sympy.Expr) -> sympy.Expr:
    """floor(arg), written ceiling(n/d) when arg = n/d + (d-1)/d with n integer-valued."""
    constant, rest = arg.as_coeff_Add()
    d = sympy.Integer(constant.q) if constant.is_Rational else sympy.Integer(1)
    scaled = (rest * d).expand()
    if (
        d > 1
        and constant == (d - 1) / d
        and all(c.is_Integer for c in scaled.as_coefficients_dict().values())
    ):
        return sympy.ceiling(rest)
    return sympy.floor(arg)


def aff_to_sympy(aff: isl.Aff, symbols: Mapping[str, sympy.Symbol]) -> sympy.Expr:
    """c + Σ a_i·p_i + Σ b_j·floor(div_j) for an affine expression over the parameters."""
    if aff.dim(isl.dim_type.in_):
        raise ValueError("expected an expression over the parameters only")
    space = aff.get_space()
    terms = [val_to_sympy(aff.get_constant_val())]
    for i in range(aff.dim(isl.dim_type.param)):
        coeff = val_to_sympy(aff.get_coefficient_val(isl.dim_type.param, i))
        if coeff:
            terms.append(coeff * symbols[space.get_dim_name(isl.dim_type.param, i)])
    for j in range(aff.dim(isl.dim_type.div)):
        coeff = val_to_sympy(aff.get_coefficient_val(isl.dim_type.div, j))
        if coeff:
            terms.append(coeff * floor_of(aff_to_sympy(aff.get_div(j), symbols)))
    return sympy.Add(*terms)


def set_to_sympy(pset: isl.Set, symbols: Mapping[str, sympy.Symbol]) -> sympy.Boolean:
    """A parameter domain as Or over its basic sets of And over their constraints."""
    disjuncts = []
    for bset in pset.compute_divs().get_basic_sets():
        conjuncts = []
        for constraint in bset.get_constraints():
            expr = aff_to_sympy(constraint.get_aff(), symbols)
            constant = expr.as_coeff_Add()[0]
            lhs, rhs = expr - constant, -constant
            conjuncts.append(sympy.Eq(lhs, rhs) if constraint.is_equality() else lhs >= rhs)
        disjuncts.append(sympy.And(*conjuncts))
    return sympy.Or(*disjuncts)


def qpolynomial_to_sympy(qp: isl.QPolynomial, symbols: Mapping[str, sympy.Symbol]) -> sympy.Expr:
    """Σ_terms c · Π p_i^e_i · Π floor(div_j)^f_j."""
    space = qp.get_domain_space()
    names = [
        space.get_dim_name(isl.dim_type.param, i) for i in range(space.dim(isl.dim_type.param))
    ]
    terms = []
    for term in qp.get_terms():
        if term.dim(isl.dim_type.set):
            raise ValueError("expected a quasi-polynomial over the parameters only")
        factors = [val_to_sympy(term.get_coefficient_val())]
        for i, name in enumerate(names):
            power = term.get_exp(isl.dim_type.param, i)
            if power:
                factors.append(symbols[name] ** power)
        for j in range(term.dim(isl.dim_type.div)):
            power = term.get_exp(isl.dim_type.div, j)
            if power:
                factors.append(floor_of(aff_to_sympy(term.get_div(j), symbols)) ** power)
        terms.append(sympy.Mul(*factors))
    return sympy.Add(*terms)


def pw_to_sympy(
    pw: isl.PwQPolynomial, context: isl.Set, symbols: Mapping[str, sympy.Symbol]
) -> sympy.Expr:
    """Piecewise((q_k, domain_k), ..., (0, True)): isl's value is 0 outside every piece.

    When the pieces cover the context the last one becomes the `True` (otherwise) case.
    """
    pieces = [
        (qpolynomial_to_sympy(qp, symbols), set_to_sympy(dom, symbols))
        for dom, qp in pw.get_pieces()
    ]
    if not pieces:
        return sympy.Integer(0)
    if context.is_subset(pw.domain()):
        pieces[-1] = (pieces[-1][0], sympy.true)
    else:
        pieces.append((sympy.Integer(0), sympy.true))
    if len(pieces) == 1:
        return pieces[0][0]
    return sympy.Piecewise(*pieces)


def count_to_sympy(
    count: isl.UnionPwQPolynomial, context: isl.Set, symbols: Mapping[str, sympy.Symbol]
) -> sympy.Expr:
    """A count (simplified under the parameter context) as one sympy expression."""
    count = count.gist_params(context).coalesce()
    pws: list[isl.PwQPolynomial] = []
    count.foreach_pw_qpolynomial(pws.append)
    return sympy.Add(*[pw_to_sympy(pw, context, symbols) for pw in pws])


# ---------------------------------------------------------------------------------------------
# Exact evaluation of the sympy formulas (Fractions, no floats)

_RELATIONS = {
    sympy.Eq: lambda a, b: a == b,
    sympy.Ne: lambda a, b: a != b,
    sympy.Lt: lambda a, b: a < b,
    sympy.Le: lambda a, b: a <= b,
    sympy.Gt: lambda a, b: a > b,
    sympy.Ge: lambda a, b: a >= b,
}


def exact_value(expr: sympy.Basic, env: Mapping[sympy.Symbol, int]) -> Fraction | bool:
    """The value of a formula at integer parameters, in exact rational arithmetic."""
    if expr is sympy.true or expr is sympy.false:
        return bool(expr)
    if isinstance(expr, sympy.Symbol):
        return Fraction(env[expr])
    if isinstance(expr, sympy.Rational):
        return Fraction(int(expr.p), int(expr.q))
    if isinstance(expr, sympy.Add):
        return sum((exact_value(a, env) for a in expr.args), Fraction(0))
    if isinstance(expr, sympy.Mul):
        out = Fraction(1)
        for a in expr.args:
            out *= exact_value(a, env)
        return out
    if isinstance(expr, sympy.Pow) and expr.exp.is_Integer:
        return exact_value(expr.base, env) ** int(expr.exp)
    if isinstance(expr, sympy.floor):
        return Fraction(exact_value(expr.args[0], env).__floor__())
    if isinstance(expr, sympy.ceiling):
        return Fraction(exact_value(expr.args[0], env).__ceil__())
    if isinstance(expr, sympy.Mod):
        return exact_value(expr.args[0], env) % exact_value(expr.args[1], env)
    if isinstance(expr, (sympy.Max, sympy.Min)):
        pick = max if isinstance(expr, sympy.Max) else min
        return pick(exact_value(a, env) for a in expr.args)
    if isinstance(expr, sympy.Piecewise):
        for value, cond in expr.args:
            if exact_value(cond, env):
                return exact_value(value, env)
        raise ValueError(f"no piece of {expr} applies")
    if isinstance(expr, sympy.And):
        return all(exact_value(a, env) for a in expr.args)
    if isinstance(expr, sympy.Or):
        return any(exact_value(a, env) for a in expr.args)
    if isinstance(expr, sympy.Not):
        return not exact_value(expr.args[0], env)
    if type(expr) in _RELATIONS:
        return _RELATIONS[type(expr)](exact_value(expr.lhs, env), exact_value(expr.rhs, env))
    raise ValueError(f"cannot evaluate {type(expr).__name__} exactly: {expr}")
