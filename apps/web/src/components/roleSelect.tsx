import { Label } from "@berth/ui/label";
import { Select } from "@berth/ui/select";
import { rolesUpTo, type Role } from "../lib/roles.ts";

/** A labelled choice of role, offering none above `ceiling` (the API checks it again). */
export function RoleSelect({
  label,
  ceiling,
  value,
  onChange,
}: {
  label: string;
  ceiling: Role;
  value: Role;
  onChange: (role: Role) => void;
}) {
  const choices = rolesUpTo(ceiling);
  return (
    <Label className="w-44">
      {label}
      <Select
        value={value}
        onChange={(event) => {
          onChange(choices.find((candidate) => candidate === event.target.value) ?? "member");
        }}
      >
        {choices.map((candidate) => (
          <option key={candidate} value={candidate}>
            {candidate}
          </option>
        ))}
      </Select>
    </Label>
  );
}
