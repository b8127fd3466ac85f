//! The formula of an explain chain as a small expression tree: the one object both
//! printed (`R / OSL`) and evaluated from the chain's inputs, so a test can recompute
//! every chain's value from what it shows.

use std::fmt;

/// An expression over named inputs.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Var(String),
    Num(f64),
    Sum(Vec<Expr>),
    Diff(Box<Expr>, Box<Expr>),
    Product(Vec<Expr>),
    Quotient(Box<Expr>, Box<Expr>),
    Max(Vec<Expr>),
    Min(Vec<Expr>),
    Floor(Box<Expr>),
    Power(Box<Expr>, Box<Expr>),
    /// The natural logarithm (the open loop's exponential wait tail).
    Ln(Box<Expr>),
}

/// An input by its symbol.
pub fn var(name: &str) -> Expr {
    Expr::Var(name.to_string())
}

pub fn num(v: f64) -> Expr {
    Expr::Num(v)
}

pub fn sum(terms: impl IntoIterator<Item = Expr>) -> Expr {
    Expr::Sum(terms.into_iter().collect())
}

pub fn diff(a: Expr, b: Expr) -> Expr {
    Expr::Diff(Box::new(a), Box::new(b))
}

pub fn product(factors: impl IntoIterator<Item = Expr>) -> Expr {
    Expr::Product(factors.into_iter().collect())
}

pub fn quotient(a: Expr, b: Expr) -> Expr {
    Expr::Quotient(Box::new(a), Box::new(b))
}

pub fn max(terms: impl IntoIterator<Item = Expr>) -> Expr {
    Expr::Max(terms.into_iter().collect())
}

pub fn min(terms: impl IntoIterator<Item = Expr>) -> Expr {
    Expr::Min(terms.into_iter().collect())
}

pub fn floor(e: Expr) -> Expr {
    Expr::Floor(Box::new(e))
}

pub fn power(base: Expr, exponent: Expr) -> Expr {
    Expr::Power(Box::new(base), Box::new(exponent))
}

pub fn ln(e: Expr) -> Expr {
    Expr::Ln(Box::new(e))
}

impl Expr {
    /// The value with each symbol read from `input`; `None` names no symbol it lacks,
    /// so a chain whose formula mentions an input it does not list fails to evaluate.
    pub fn eval(&self, input: &dyn Fn(&str) -> Option<f64>) -> Option<f64> {
        let all = |es: &[Expr]| es.iter().map(|e| e.eval(input)).collect::<Option<Vec<_>>>();
        Some(match self {
            Expr::Var(name) => input(name)?,
            Expr::Num(v) => *v,
            Expr::Sum(es) => all(es)?.iter().sum(),
            Expr::Diff(a, b) => a.eval(input)? - b.eval(input)?,
            Expr::Product(es) => all(es)?.iter().product(),
            Expr::Quotient(a, b) => a.eval(input)? / b.eval(input)?,
            Expr::Max(es) => all(es)?.into_iter().fold(f64::NEG_INFINITY, f64::max),
            Expr::Min(es) => all(es)?.into_iter().fold(f64::INFINITY, f64::min),
            Expr::Floor(e) => e.eval(input)?.floor(),
            Expr::Power(a, b) => a.eval(input)?.powf(b.eval(input)?),
            Expr::Ln(e) => e.eval(input)?.ln(),
        })
    }

    /// Every symbol the expression reads, in order of first appearance.
    pub fn symbols(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Expr::Var(name) => {
                if !out.contains(&name.as_str()) {
                    out.push(name);
                }
            }
            Expr::Num(_) => {}
            Expr::Sum(es) | Expr::Product(es) | Expr::Max(es) | Expr::Min(es) => {
                es.iter().for_each(|e| e.collect(out))
            }
            Expr::Diff(a, b) | Expr::Quotient(a, b) | Expr::Power(a, b) => {
                a.collect(out);
                b.collect(out);
            }
            Expr::Floor(e) | Expr::Ln(e) => e.collect(out),
        }
    }

    /// Binding strength, for parentheses: sums bind loosest.
    fn precedence(&self) -> u8 {
        match self {
            Expr::Sum(_) | Expr::Diff(..) => 1,
            Expr::Product(_) | Expr::Quotient(..) => 2,
            _ => 3,
        }
    }

    fn write_operand(&self, f: &mut fmt::Formatter<'_>, at_least: u8) -> fmt::Result {
        if self.precedence() < at_least {
            write!(f, "({self})")
        } else {
            write!(f, "{self}")
        }
    }

    fn write_list(f: &mut fmt::Formatter<'_>, es: &[Expr], sep: &str, at_least: u8) -> fmt::Result {
        for (i, e) in es.iter().enumerate() {
            if i > 0 {
                f.write_str(sep)?;
            }
            e.write_operand(f, at_least)?;
        }
        Ok(())
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Var(name) => f.write_str(name),
            Expr::Num(v) => write!(f, "{v}"),
            Expr::Sum(es) => Expr::write_list(f, es, " + ", 1),
            Expr::Diff(a, b) => {
                a.write_operand(f, 1)?;
                f.write_str(" - ")?;
                b.write_operand(f, 2)
            }
            Expr::Product(es) => Expr::write_list(f, es, " × ", 2),
            Expr::Quotient(a, b) => {
                a.write_operand(f, 2)?;
                f.write_str(" / ")?;
                b.write_operand(f, 3)
            }
            Expr::Max(es) => {
                f.write_str("max(")?;
                Expr::write_list(f, es, ", ", 0)?;
                f.write_str(")")
            }
            Expr::Min(es) => {
                f.write_str("min(")?;
                Expr::write_list(f, es, ", ", 0)?;
                f.write_str(")")
            }
            Expr::Floor(e) => write!(f, "floor({e})"),
            Expr::Ln(e) => write!(f, "ln({e})"),
            Expr::Power(a, b) => {
                a.write_operand(f, 3)?;
                f.write_str("^")?;
                b.write_operand(f, 3)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_with_the_parentheses_it_needs_and_evaluates_what_it_prints() {
        let e = quotient(
            sum([product([var("OSL"), var("t_d")]), var("t_p")]),
            diff(var("a"), sum([var("b"), num(1.0)])),
        );
        assert_eq!(e.to_string(), "(OSL × t_d + t_p) / (a - (b + 1))");
        let vals = |n: &str| match n {
            "OSL" => Some(10.0),
            "t_d" => Some(2.0),
            "t_p" => Some(4.0),
            "a" => Some(5.0),
            "b" => Some(1.0),
            _ => None,
        };
        assert_eq!(e.eval(&vals), Some(24.0 / 3.0));
        assert_eq!(e.symbols(), ["OSL", "t_d", "t_p", "a", "b"]);
        assert_eq!(var("missing").eval(&vals), None);
        let m = floor(max([var("a"), min([var("b"), num(0.5)])]));
        assert_eq!(m.to_string(), "floor(max(a, min(b, 0.5)))");
        assert_eq!(m.eval(&vals), Some(5.0));
        let l = product([var("a"), ln(quotient(var("b"), num(0.1)))]);
        assert_eq!(l.to_string(), "a × ln(b / 0.1)");
        assert_eq!(l.eval(&vals), Some(5.0 * 10f64.ln()));
        assert_eq!(l.symbols(), ["a", "b"]);
    }
}
