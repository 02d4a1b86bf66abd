// The clusters this stack serves (the `clusters` param, comma-separated), as infra/iam.yml needs them
// at package time: `${file(infra/cluster-scope.cjs):names}` and `...:instanceProfiles`.
//
// Why a file and not Fn::Split/Fn::Join: CloudFormation cannot loop, and the only way to turn "a,b"
// into one ARN per cluster is to join the names with the ARN between them, but Fn::Join's delimiter
// (and Fn::Sub's template) must be a literal, so that ARN could not hold ${AWS::Partition},
// ${AWS::AccountId} or ${AWS::Region}. Here every ARN is an Fn::Sub of its own, and a name that is not
// an EKS cluster name (a `*`, a space after a comma) stops the packaging instead of widening a policy.
'use strict';

// EKS: 1-100 characters, letters, digits, - and _, starting with a letter or digit (src/domain/aws.ts).
const EKS_CLUSTER_NAME = /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/;

module.exports = async ({ resolveVariable }) => {
  const value = String((await resolveVariable('param:clusters')) ?? '');
  const names = value === '' ? [] : value.split(',');
  const bad = names.filter((n) => !EKS_CLUSTER_NAME.test(n));
  if (bad.length > 0) {
    throw new Error(
      `param clusters must be EKS cluster names, comma-separated without spaces; not ${bad.map((n) => JSON.stringify(n)).join(', ')}`,
    );
  }
  const profile = (rest) => ({ 'Fn::Sub': `arn:\${AWS::Partition}:iam::\${AWS::AccountId}:instance-profile/${rest}` });
  return {
    names,
    // Karpenter >= 1.7 keeps a cluster's profiles under /karpenter/<region>/<cluster>/<EC2NodeClass uid>/;
    // before, at / named <cluster>_<number> (docs/deploy.md "What each role may touch").
    instanceProfiles: names.flatMap((c) => [profile(`karpenter/\${AWS::Region}/${c}/*`), profile(`${c}_*`)]),
  };
};
