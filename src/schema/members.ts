import { isObject } from "../json/value.js";
import { issue, type Check } from "./check.js";
import { messages } from "./messages.js";

/** What a schema says of one member name: its subschema when `properties` declares it, whether it is required. */
interface Member {
  check: Check | undefined;
  required: boolean;
}

/**
 * The keywords about an object's members (`properties`, `required`, `additionalProperties`)
 * each tell one schema's Members what they want; it then checks them all in one pass over the
 * object's members, looking each name up once.
 */
export class Members {
  private readonly byName = new Map<string, Member>();
  /** The required names as listed (a name listed twice is reported twice), each with its message. */
  private readonly required: { name: string; message: string }[] = [];
  /** `additionalProperties`: false refuses the members `properties` does not declare, a schema checks them. */
  private othersRefused = false;
  private othersCheck: Check | undefined;

  /** `properties`: a present member of this name validates against `check`. */
  declare(name: string, check: Check): void {
    this.member(name).check = check;
  }

  /** `required`: a member of this name must be present. */
  require(name: string): void {
    // (the flag only counts the names found, to skip the search for missing ones: see check)
    // Stryker disable next-line BooleanLiteral: without the count every required name is looked for, with the same answer
    this.member(name).required = true;
    this.required.push({ name, message: messages.required(name) });
  }

  /** `additionalProperties: false`: a member `properties` does not declare is an error. */
  refuseOthers(): void {
    this.othersRefused = true;
  }

  /** `additionalProperties` with a schema: each member `properties` does not declare validates against it. */
  checkOthers(check: Check): void {
    this.othersCheck = check;
  }

  check(): Check {
    const byName = this.byName;
    const required = this.required;
    const refuse = this.othersRefused;
    const others = this.othersCheck;
    // a name listed twice is one name to find
    // Stryker disable next-line ArrowFunction: a wrong count only looks for missing names when none is missing
    const wanted = new Set(required.map((entry) => entry.name)).size;
    return (instance, path, issues) => {
      if (!isObject(instance)) return;
      // for…in also lists what Object.prototype was given as enumerable: never a member
      const inherited = hasEnumerablePrototype();
      let found = 0;
      for (const name in instance) {
        // Stryker disable next-line ConditionalExpression: an own member passes hasOwn anyway, the flag only saves asking
        if (inherited && !Object.hasOwn(instance, name)) continue;
        const member = byName.get(name);
        // Stryker disable next-line ConditionalExpression,UpdateOperator: a wrong count only looks for missing names when none is missing
        if (member?.required) found++;
        const check = member?.check;
        if (check) {
          path.push(name);
          check(instance[name]!, path, issues);
          path.pop();
        } else if (refuse) issues.push(issue(path, messages.unexpected(name)));
        else if (others) {
          path.push(name);
          others(instance[name]!, path, issues);
          path.pop();
        }
      }
      // every required name found: none is missing, and none need be looked for
      // Stryker disable next-line ConditionalExpression: looking for missing names when none is missing finds none
      if (found === wanted) return;
      for (const { name, message } of required) if (!Object.hasOwn(instance, name)) issues.push(issue(path, message));
    };
  }

  private member(name: string): Member {
    let member = this.byName.get(name);
    if (!member) {
      member = { check: undefined, required: false };
      this.byName.set(name, member);
    }
    return member;
  }
}

function hasEnumerablePrototype(): boolean {
  for (const _ in Object.prototype) return true;
  // Stryker disable next-line BooleanLiteral: asking hasOwn of every member gives the same answer, slower
  return false;
}
